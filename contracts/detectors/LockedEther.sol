// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug (locked ether): `save` accepts ether and nothing can ever send it out.
contract PiggyBank {
    mapping(address => uint256) public saved;

    function save() external payable {
        saved[msg.sender] += msg.value;
    }
}

/// `PiggyBank` corrected: savers take their ether back.
contract OpenPiggyBank {
    mapping(address => uint256) public saved;

    function save() external payable {
        saved[msg.sender] += msg.value;
    }

    function takeBack() external {
        uint256 amount = saved[msg.sender];
        saved[msg.sender] = 0;
        payable(msg.sender).transfer(amount);
    }
}
